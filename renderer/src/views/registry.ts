// The component of each view (shared/api/views.ts lists them): a complete Record, so a view
// added there does not compile until it is drawn here.
import type { Component } from 'vue';
import type { ViewId } from '../../../shared/api/views';
import OverviewView from './OverviewView.vue';
import ServersView from './ServersView.vue';
import GroupsView from './GroupsView.vue';
import ServicesView from './ServicesView.vue';
import TargetSetsView from './TargetSetsView.vue';
import AppliancesView from './AppliancesView.vue';
import ProblemsView from './ProblemsView.vue';
import HistoryView from './HistoryView.vue';
import OperateView from './OperateView.vue';

export const VIEW_COMPONENTS: Record<ViewId, Component> = {
  overview: OverviewView,
  servers: ServersView,
  groups: GroupsView,
  services: ServicesView,
  targetSets: TargetSetsView,
  appliances: AppliancesView,
  problems: ProblemsView,
  history: HistoryView,
  operate: OperateView,
};
