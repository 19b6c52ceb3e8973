import { Controller, Delete, Get, OnModuleDestroy, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { getRequestListener } from '@hono/node-server';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { McpSessionRegistry, McpTransport } from './mcp-session.registry';

/** JSON-RPC's code the MCP SDK answers an unknown session with (its clients then reinitialize). */
const SESSION_NOT_FOUND = -32001;
const INVALID_REQUEST = -32600;

/**
 * The MCP server over Streamable HTTP at `/mcp` (PROTOCOL.md §9.8), outside the `/api` prefix: POST carries the
 * client's messages (an `initialize` without a session opens one), GET the stream of the server's own, DELETE ends
 * the session. Behind the service's global guards like every route: a bearer JWT (401 otherwise), the same principals
 * and roles. The verified principal travels with each message to the handlers (the transport's authInfo). Not in the
 * OpenAPI document: MCP describes itself (tools/list, resources/list).
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController implements OnModuleDestroy {
  constructor(private readonly sessions: McpSessionRegistry) {}

  @Post()
  post(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.handle(principal, req, res, req.body as unknown);
  }

  @Get()
  stream(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.handle(principal, req, res, undefined);
  }

  @Delete()
  end(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.handle(principal, req, res, undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sessions.closeAll();
  }

  private async handle(principal: Principal, req: Request, res: Response, body: unknown): Promise<void> {
    const authInfo: AuthInfo = { token: '', clientId: principal.userId, scopes: [], extra: { principal } };
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = await this.sessions.find(sessionId, principal);
      if (!transport) return rpcError(res, 404, SESSION_NOT_FOUND, 'Session not found');
      await serve(transport, req, res, authInfo, body);
      if (req.method === 'DELETE' && res.statusCode === 200) await this.sessions.end(sessionId);
      return;
    }
    if (req.method === 'POST' && isJSONRPCRequest(body) && isInitializeRequest(body)) {
      const transport = await this.sessions.open(principal, body);
      return serve(transport, req, res, authInfo, body);
    }
    return rpcError(res, 400, INVALID_REQUEST, 'No valid session: send initialize first, then its Mcp-Session-Id');
  }
}

/**
 * The request through the SDK's web-standard transport, converted from and to Node's HTTP by @hono/node-server, as the
 * SDK's own Node transport does (the body already parsed by the service's JSON parser).
 */
async function serve(transport: McpTransport, req: Request, res: Response, authInfo: AuthInfo, body: unknown) {
  const listener = getRequestListener(
    (webRequest) => transport.handleRequest(webRequest, { authInfo, parsedBody: body }),
    {
      overrideGlobalObjects: false,
    },
  );
  await listener(req, res);
}

function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}
