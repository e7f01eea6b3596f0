/**
 * Symfony's English messages and codes for each constraint, with its plural rule (`1 character` / `3 characters`),
 * so clients that already read API Platform's violations read ours the same way.
 */

export interface MessageDefinition {
  readonly code: string;
  /** `one|other` forms are chosen by `{{ limit }}`. */
  readonly message: string;
}

/** A violation found by a check, before it is placed on a property path. */
export interface Finding {
  readonly message: string;
  readonly code: string;
}

const define = (code: string, message: string): MessageDefinition => Object.freeze({ code, message });

export const MESSAGES = Object.freeze({
  notBlank: define('c1051bb4-d103-4f74-8988-acbcafc7fdc3', 'This value should not be blank.'),
  notNull: define('ad32d13f-c3d4-423b-909a-857b961eb720', 'This value should not be null.'),
  blank: define('183ad2de-533d-4796-a439-6d3c3852b549', 'This value should be blank.'),
  isNull: define('60d2f30b-8cfa-4372-b155-9656634de120', 'This value should be null.'),
  tooShort: define(
    '9ff3fdc4-b214-49db-8718-39c315e33d45',
    'This value is too short. It should have {{ limit }} character or more.|This value is too short. It should have {{ limit }} characters or more.',
  ),
  tooLong: define(
    'd94b19cc-114f-4f44-9cc4-4138e80a87b9',
    'This value is too long. It should have {{ limit }} character or less.|This value is too long. It should have {{ limit }} characters or less.',
  ),
  exactLength: define(
    '4b6f5c76-22b4-409d-af16-fbe823ba9332',
    'This value should have exactly {{ limit }} character.|This value should have exactly {{ limit }} characters.',
  ),
  tooFew: define(
    'bef8e338-6ae5-4caf-b8e2-50e7b0579e69',
    'This collection should contain {{ limit }} element or more.|This collection should contain {{ limit }} elements or more.',
  ),
  tooMany: define(
    '756b1212-697c-468d-a9ad-50dd783bb169',
    'This collection should contain {{ limit }} element or less.|This collection should contain {{ limit }} elements or less.',
  ),
  exactCount: define(
    '9bd98e49-211c-433f-8630-fd1c2e0f08b4',
    'This collection should contain exactly {{ limit }} element.|This collection should contain exactly {{ limit }} elements.',
  ),
  notInRange: define('04b91c99-a946-4221-afc5-e65ebac401eb', 'This value should be between {{ min }} and {{ max }}.'),
  tooLow: define('76454e69-502c-46c5-9643-f447d837c4d5', 'This value should be {{ limit }} or more.'),
  tooHigh: define('2d28afcb-e32e-45fb-a815-01c431a86a69', 'This value should be {{ limit }} or less.'),
  invalidNumber: define('ad9a9798-7a99-4df7-8ce9-46e416a1e60b', 'This value should be a valid number.'),
  positive: define('778b7ae0-84d3-481a-9dec-35fdb64b1d78', 'This value should be positive.'),
  positiveOrZero: define('ea4e51d1-3342-48bd-87f1-9e672cd90cad', 'This value should be either positive or zero.'),
  negative: define('079d7420-2d13-460c-8756-de810eeb37d2', 'This value should be negative.'),
  negativeOrZero: define('30fbb013-d015-4232-8b3b-8f3be97a7e14', 'This value should be either negative or zero.'),
  lessThan: define('079d7420-2d13-460c-8756-de810eeb37d2', 'This value should be less than {{ compared_value }}.'),
  lessThanOrEqual: define(
    '30fbb013-d015-4232-8b3b-8f3be97a7e14',
    'This value should be less than or equal to {{ compared_value }}.',
  ),
  greaterThan: define(
    '778b7ae0-84d3-481a-9dec-35fdb64b1d78',
    'This value should be greater than {{ compared_value }}.',
  ),
  greaterThanOrEqual: define(
    'ea4e51d1-3342-48bd-87f1-9e672cd90cad',
    'This value should be greater than or equal to {{ compared_value }}.',
  ),
  equalTo: define('478618a7-95ba-473d-9101-cabd45e49115', 'This value should be equal to {{ compared_value }}.'),
  notEqualTo: define('aa2e33da-25c8-4d76-8c6c-812f02ea89dd', 'This value should not be equal to {{ compared_value }}.'),
  noSuchChoice: define('8e179f1b-97aa-4560-a02f-2a8b42e49df7', 'The value you selected is not a valid choice.'),
  noSuchChoices: define('75ab0b2c-cd77-4b0b-a48a-0bd0e6f8a9fd', 'One or more of the given values is invalid.'),
  tooFewChoices: define(
    '11edd7eb-5872-4b6e-9f12-89923999fd0e',
    'You must select at least {{ limit }} choice.|You must select at least {{ limit }} choices.',
  ),
  tooManyChoices: define(
    '9bd98e49-211c-433f-8630-fd1c2e0f08b4',
    'You must select at most {{ limit }} choice.|You must select at most {{ limit }} choices.',
  ),
  email: define('bd79c0ab-ddba-46cc-a703-a7a4b08de310', 'This value is not a valid email address.'),
  url: define('57c2f299-1154-4870-89bb-ef3b1f5ad229', 'This value is not a valid URL.'),
  uuid: define('51120b12-a2bc-41bf-aa53-cd73daf330d0', 'This is not a valid UUID.'),
  regex: define('de1e3db3-5ed4-4941-aae4-59f3667cc3a3', 'This value is not valid.'),
  date: define('69819696-02ac-4a99-9ff0-14e127c4d1bc', 'This value is not a valid date.'),
  dateTime: define('1a9da513-2640-4f84-9b6a-4d99dcddc628', 'This value is not a valid datetime.'),
  unique: define('23bd9dbf-6b9b-41cd-a99e-4844bcf3077f', 'This value is already used.'),
  userPassword: define('2d2a8bb4-ddc8-45e4-9b0f-8670d3a3e290', "This value should be the user's current password."),
  emptyFile: define('5d743385-9775-4aa5-8ff5-495fb1e60137', 'An empty file is not allowed.'),
  fileTooLarge: define(
    'df8637af-d466-48c6-a59d-e7126250a654',
    'The file is too large ({{ size }} {{ suffix }}). Allowed maximum size is {{ limit }} {{ suffix }}.',
  ),
  invalidMimeType: define(
    '744f00bc-4389-4c74-92de-9a43cde55534',
    'The mime type of the file is invalid ({{ type }}). Allowed mime types are {{ types }}.',
  ),
  notAnImage: define('744f00bc-4389-4c74-92de-9a43cde55534', 'This file is not a valid image.'),
  imageSizeNotDetected: define('6d55c3f4-e58e-4fe3-91ee-74b492199956', 'The size of the image could not be detected.'),
  imageTooWide: define(
    '7f87163d-878f-47f5-99ba-a8eb723a1ab2',
    'The image width is too big ({{ width }}px). Allowed maximum width is {{ max_width }}px.',
  ),
  imageTooNarrow: define(
    '9afbd561-4f90-4a27-be62-1780fc43604a',
    'The image width is too small ({{ width }}px). Minimum width expected is {{ min_width }}px.',
  ),
  imageTooHigh: define(
    '7efae81c-4877-47ba-aa65-d01ccb0d4645',
    'The image height is too big ({{ height }}px). Allowed maximum height is {{ max_height }}px.',
  ),
  imageTooLow: define(
    'aef0cb6a-c07f-4894-bc08-1781420d7b4c',
    'The image height is too small ({{ height }}px). Minimum height expected is {{ min_height }}px.',
  ),
  imageTooManyPixels: define(
    '1b06b97d-ae48-474e-978f-038a74854c43',
    'The image has too many pixels ({{ pixels }} pixels). Maximum amount expected is {{ max_pixels }} pixels.',
  ),
  callback: define('c2d1a3b0-6b9e-4f7a-9d2e-1f0c5a7e3b11', 'This value is not valid.'),
});

/** A compared value as Symfony prints it: strings quoted, the rest as is. */
export const printValue = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : String(value));

/** Fills `{{ name }}` placeholders; `one|other` forms are chosen by `{{ limit }}` (1 → one, anything else → other). */
export function formatMessage(template: string, parameters: Readonly<Record<string, unknown>> = {}): string {
  let text = template;
  if (text.includes('|')) {
    const [one, other] = text.split('|');
    text = Number(parameters.limit) === 1 ? one! : other!;
  }
  return text.replace(/\{\{ (\w+) \}\}/g, (match, name: string) =>
    name in parameters ? String(parameters[name]) : match,
  );
}
