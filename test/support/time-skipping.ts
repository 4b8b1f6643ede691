import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporalTestServer } from '../../scripts/services/paths';
import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { installTestRuntime } from './runtime';

/**
 * The time-skipping test server with our search attributes registered (a workflow that upserts an
 * unknown one fails its task). That server has addSearchAttributes but not listSearchAttributes.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installTestRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServer() } },
  });
  const type = (t: string) =>
    temporal.api.enums.v1.IndexedValueType[
      `INDEXED_VALUE_TYPE_${t.toUpperCase()}` as keyof typeof temporal.api.enums.v1.IndexedValueType
    ];
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, type(k.type)])),
  });
  return env;
}
