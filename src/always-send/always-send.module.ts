import { Module } from '@nestjs/common';
import { AlwaysSendService } from './always-send.service';

/**
 * What each graph always sends to the model: its list, on the ALWAYS_SEND_REPOSITORY adapter the global persistence
 * module provides. The agent renders it into level 2 of the prompts and serves GET/PUT .../always-send.
 */
@Module({
  providers: [AlwaysSendService],
  exports: [AlwaysSendService],
})
export class AlwaysSendModule {}
