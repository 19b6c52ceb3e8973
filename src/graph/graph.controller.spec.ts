import { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { GraphDocumentDto } from './dto/graph-document.dto';
import { GraphController } from './graph.controller';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { GraphStore } from './graph-store';

describe(GraphController.name, () => {
  const admin: Principal = { userId: 'u', workspace: 'acme', role: 'admin' };
  const body = structuredClone(nbaWorkflowDemo) as unknown as GraphDocumentDto;

  function controllerOver(store: Partial<GraphStore>): GraphController {
    const full = store as GraphStore;
    return new GraphController(full, new GraphDataSourceFactory(full));
  }

  it('answers read_only_store (409) on a store the service does not own, without importing', async () => {
    const importGraph = jest.fn();
    const controller = controllerOver({ kind: 'arango', supportsImport: false, importGraph });
    await expect(controller.importGraph(admin, 'nba-workflow', body)).rejects.toMatchObject({
      code: 'read_only_store',
      statusCode: 409,
    });
    expect(importGraph).not.toHaveBeenCalled();
  });

  it("imports into the caller's workspace with node configs defaulting to none", async () => {
    const importGraph = jest.fn().mockResolvedValue({ nodes: 9, edges: 6 });
    const controller = controllerOver({ kind: 'sqlite', supportsImport: true, importGraph });
    const withoutConfigs = { ...body, nodeConfigs: undefined };
    await expect(controller.importGraph(admin, 'nba-workflow', withoutConfigs)).resolves.toEqual({
      nodes: 9,
      edges: 6,
    });
    expect(importGraph).toHaveBeenCalledWith('acme', expect.objectContaining({ nodeConfigs: [] }));
  });

  it('answers not_found for a graph absent from the workspace', async () => {
    const source = { getGraph: jest.fn().mockResolvedValue(null) };
    const controller = controllerOver({
      kind: 'sqlite',
      supportsImport: true,
      forWorkspace: jest.fn().mockReturnValue(source),
    });
    const error = await controller.exportGraph(admin, 'ghost').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'not_found' });
  });
});
