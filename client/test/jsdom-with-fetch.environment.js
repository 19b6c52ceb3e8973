const { TestEnvironment } = require('jest-environment-jsdom');

/**
 * jsdom, which has no fetch, with Node's own fetch (and its Request, Response, Headers) added: for the specs of the
 * hook and components that call the service's REST routes, here the test server's.
 */
class JsdomWithFetchEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of ['fetch', 'Request', 'Response', 'Headers']) this.global[name] = globalThis[name];
  }
}

module.exports = JsdomWithFetchEnvironment;
