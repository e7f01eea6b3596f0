// @ts-nocheck — compiled next to the client generated for client.test.ts's help desk (which strips this line), not here.
/** The help desk of client.test.ts: tickets with UUID ids; their ids, cursors and subresource parents are strings. */
import { createClient, type Ticket } from './api/index.js';

const desk = createClient({ baseUrl: 'http://desk.example' });

export async function compiles(): Promise<unknown[]> {
  const ticket: Ticket = await desk.tickets.create({ title: 'Broken lamp' });
  const id: string = ticket.id;
  const page = await desk.tickets.list({ id: { gt: id } });
  const replies = await desk.tickets.replies(id);
  const reply = await desk.replies.create({ text: 'On it', ticket: ticket['@id'] });
  await desk.replies.list({ ticket: id });
  // @ts-expect-error -- a ticket's id is a UUID string
  const wrong: number = ticket.id;
  // @ts-expect-error -- the parent of a subresource is named by its UUID
  await desk.tickets.replies(1);
  return [page, replies, reply, wrong];
}
