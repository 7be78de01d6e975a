// The sidebar sections, in order: Ctrl+1 … Ctrl+9 follow this list.
export const SECTIONS = [
  { id: 'overview', label: 'Overview' },
  { id: 'servers', label: 'Real servers', list: 'servers' },
  { id: 'groups', label: 'Server groups', list: 'groups' },
  { id: 'services', label: 'Virtual services', list: 'services' },
  { id: 'targetSets', label: 'Target sets', list: 'targetSets' },
  { id: 'appliances', label: 'Appliances', list: 'appliances' },
  { id: 'problems', label: 'Problems' },
  { id: 'history', label: 'History' },
  { id: 'operate', label: 'Operate' },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];
export type ListSection = 'servers' | 'groups' | 'services' | 'targetSets' | 'appliances';
export const LIST_SECTIONS: ListSection[] = ['servers', 'groups', 'services', 'targetSets', 'appliances'];

export function isListSection(id: unknown): id is ListSection {
  return typeof id === 'string' && (LIST_SECTIONS as string[]).includes(id);
}

export function sectionLabel(id: SectionId): string {
  return SECTIONS.find((s) => s.id === id)?.label ?? id;
}
