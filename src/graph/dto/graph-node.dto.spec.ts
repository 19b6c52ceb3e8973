import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { GraphNodeDto } from './graph-node.dto';

describe(GraphNodeDto.name, () => {
  const validate = (plain: object) =>
    validateSync(plainToInstance(GraphNodeDto, plain), { whitelist: true, forbidNonWhitelisted: true });
  const group = (id: string, type: 'in' | 'out') => ({ position: 'separate', point: [{ id, type, accept: 'any' }] });
  const node = { _key: 'n', graphKey: 'g', type: 'html', sheet: '0', posX: 0, posY: 0 };

  it('accepts handles on every side of docs/protocol.md §2 (T, D, R, L and 0)', () => {
    const errors = validate({
      ...node,
      handles: {
        T: group('T-0', 'in'),
        D: group('D-0', 'out'),
        R: group('R-0', 'out'),
        L: group('L-0', 'in'),
        0: group('0-0', 'in'),
      },
    });
    expect(errors).toEqual([]);
  });

  it('refuses a side outside the list', () => {
    expect(validate({ ...node, handles: { X: group('X-0', 'in') } })).not.toEqual([]);
  });
});
