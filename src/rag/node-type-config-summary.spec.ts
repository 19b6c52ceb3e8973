import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { formatNodeType, summarizeNodeTypeConfig } from './node-type-config-summary';

describe(summarizeNodeTypeConfig.name, () => {
  it('condenses a config with its handles formatted for the model', () => {
    const apiCall = nbaWorkflowDemo.nodeConfigs.find((config) => config._key === 'api-call');
    expect(apiCall && summarizeNodeTypeConfig(apiCall)).toEqual({
      _key: 'api-call',
      displayName: 'API Call',
      description: 'Calls an HTTP API and outputs the JSON response; failures go to the error output.',
      category: 'network',
      icon: 'globe',
      handlesSummary: 'L:in(any), R:out(object), R:out(error)',
    });
  });

  it('falls back to the key when a config has no display name, and omits absent fields', () => {
    expect(summarizeNodeTypeConfig({ _key: 'bare', workspace: 'w', displayName: '' })).toEqual({
      _key: 'bare',
      displayName: 'bare',
      handlesSummary: '',
    });
  });
});

describe(formatNodeType.name, () => {
  it('shows the display name beside the type only when it differs', () => {
    expect(formatNodeType('api-call', 'API Call')).toBe('api-call (API Call)');
    expect(formatNodeType('starter', 'starter')).toBe('starter');
    expect(formatNodeType('starter', undefined)).toBe('starter');
  });
});
