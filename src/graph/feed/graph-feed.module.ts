import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module';
import { SyncTokenGuard } from '../../auth/sync-token.guard';
import { GraphModule } from '../graph.module';
import { GraphChangeFeedController } from './graph-change-feed.controller';
import { GraphChangeFeedService } from './graph-change-feed.service';

/**
 * The sync server's change feed (POST /api/graphs/:graphKey/changes) on top of GraphModule's store,
 * live overlay and change notifier. Apart from GraphModule because its guard needs AuthModule's
 * token verifier, which the command-line tools (they import GraphModule) have no use for.
 */
@Module({
  imports: [GraphModule, AuthModule],
  controllers: [GraphChangeFeedController],
  providers: [GraphChangeFeedService, SyncTokenGuard],
})
export class GraphFeedModule {}
