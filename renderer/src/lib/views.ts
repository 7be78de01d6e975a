// Each view's icon (the sidebar's, and wherever an item of its list is shown): the renderer's part
// of the views' registry (shared/api/views.ts) that needs no component. Components are in
// views/registry.ts.
import type { ViewId } from '../../../shared/api/views';

export const VIEW_ICONS: Record<ViewId, string> = {
  overview: 'M3 3h6v6H3zM11 3h6v6h-6zM3 11h6v6H3zM11 11h6v6h-6z',
  servers: 'M3 4h14v4H3zM3 12h14v4H3zM6 6h.01M6 14h.01',
  groups: 'M10 3l7 4-7 4-7-4zM3 11l7 4 7-4',
  services: 'M10 2a8 8 0 100 16 8 8 0 000-16zM2 10h16M10 2c2.5 2.5 2.5 13.5 0 16M10 2c-2.5 2.5-2.5 13.5 0 16',
  targetSets: 'M10 3v4M10 13v4M3 10h4M13 10h4M10 7a3 3 0 100 6 3 3 0 000-6z',
  appliances: 'M2 6h16v8H2zM5 10h.01M8 10h.01M12 10h4',
  problems: 'M10 3l8 14H2zM10 8v4M10 14.5v.01',
  history: 'M10 3a7 7 0 11-7 7M3 4v6h6M10 6v4l3 2',
  operate: 'M3 10h3l2-5 4 10 2-5h3',
};
