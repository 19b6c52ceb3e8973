import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import { DEMO_WORKSPACE, nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphStore } from './graph-store';
import { GRAPH_STORE } from './graph-store.token';

const logger = new Logger('graph');

/**
 * On start, when SEED_DEMO is on and the store holds no graph at all, imports the demo graph so a
 * fresh install has something to talk about (and announces it, so its nodes get embedded). A store
 * that already has graphs is never touched.
 */
@Injectable()
export class DemoGraphSeeder implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    private readonly notifier: GraphChangeNotifier,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.store.seedDemo) return;
    if (await this.store.hasGraphs()) return;
    const counts = await this.store.importGraph(DEMO_WORKSPACE, nbaWorkflowDemo);
    logger.info('demo_graph_seeded', { workspace: DEMO_WORKSPACE, graphKey: nbaWorkflowDemo.graph._key, ...counts });
    // The embedding write path gives the demo its vectors, so hybrid search works on a fresh install.
    this.notifier.notify({ kind: 'imported', workspace: DEMO_WORKSPACE, graphKey: nbaWorkflowDemo.graph._key });
  }
}
