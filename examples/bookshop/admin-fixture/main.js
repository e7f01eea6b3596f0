// API Platform Admin, unmodified, pointed at the API served from the same origin (a test fixture, not shipped).
import { HydraAdmin } from '@api-platform/admin';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')).render(createElement(HydraAdmin, { entrypoint: `${window.location.origin}/api`, title: 'Bookshop' }));
