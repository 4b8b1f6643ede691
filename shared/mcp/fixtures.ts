/**
 * The tools and resources `@modelcontextprotocol/conformance` calls by name, served only when
 * MCP_CONFORMANCE_FIXTURES is on (a test setting, refused in production): the suite then runs
 * its scenarios against our real /mcp. Two kinds:
 *
 * - task fixtures (slow_compute, failing_job, protocol_error_job): no code of their own. A
 *   workflow of the calling group named like one is served under that bare name, and a call of
 *   it is the workflow tool call (a webhook run on Temporal, tasks/get and tasks/cancel on it);
 *   the test defines what the workflows do. Only the name, the input schema and the task
 *   support the suite expects are fixed here.
 * - static fixtures (greet, test_*_content, test://static-text, ...): constant answers, pure.
 */
import type { McpTool } from '../tools/index';
import type { ToolCallResult } from './results';

/**
 * Whether a call may or must be a task. Not on the wire: 2026-07-28 deleted the tool's
 * `execution.taskSupport` (the server decides); `required` is enforced at the call (-32021).
 */
type TaskSupport = 'optional' | 'required';

interface TaskFixture {
  description: string;
  inputSchema: McpTool['inputSchema'];
  taskSupport: TaskSupport;
}

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

/** The suite's task tools: a group workflow of this name is served as the tool. */
export const TASK_FIXTURES: Record<string, TaskFixture> = {
  slow_compute: {
    description: 'Sleeps `seconds` seconds, then answers (a workflow run; settles cancelled on tasks/cancel)',
    inputSchema: {
      type: 'object',
      properties: {
        seconds: { type: 'integer', minimum: 0, maximum: 600 },
        label: { type: 'string', maxLength: 200 },
      },
      required: ['seconds'],
      additionalProperties: false,
    },
    taskSupport: 'optional',
  },
  // The suite's required-task scenario names failing_job: a client without the extension is refused -32021.
  failing_job: { description: 'Always ends in a tool error', inputSchema: NO_ARGUMENTS, taskSupport: 'required' },
  protocol_error_job: {
    description: 'Always ends in a protocol-level failure',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
  },
};

export function isTaskFixture(name: string): boolean {
  return Object.hasOwn(TASK_FIXTURES, name);
}

/** The task fixture a group workflow is served as (its name and the suite's schema, the workflow's _meta kept). */
export function taskFixtureTool(name: string, workflowTool: McpTool): McpTool {
  const f = TASK_FIXTURES[name];
  return {
    ...workflowTool,
    name,
    title: name,
    description: f.description,
    inputSchema: f.inputSchema,
  };
}

/** A 1×1 PNG and a 1-sample WAV: the smallest media the content checks accept. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

const text = (t: string) => ({ type: 'text' as const, text: t });

/** What a static fixture needs of the request beyond its arguments. */
export interface FixtureNeeds {
  /** A client capability the tool uses: refused -32021 when the request did not declare it. */
  capability?: 'sampling';
  /** Sends progress 0, 50, 100 of 100 to the request's progressToken before answering. */
  progress?: boolean;
}

interface StaticFixture extends FixtureNeeds {
  tool: McpTool;
  answer: (args: Record<string, unknown>) => ToolCallResult;
}

function staticTool(name: string, description: string, inputSchema: McpTool['inputSchema'] = NO_ARGUMENTS) {
  return {
    name,
    title: name,
    description,
    inputSchema,
    annotations: { title: name, readOnlyHint: true, openWorldHint: false },
    _meta: {},
  };
}

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const STATIC: StaticFixture[] = [
  {
    tool: staticTool('greet', 'Answers Hello, {name}!', {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 200 } },
      required: ['name'],
      additionalProperties: false,
    }),
    answer: (args) => ({ content: [text(`Hello, ${typeof args.name === 'string' ? args.name : 'World'}!`)] }),
  },
  {
    tool: staticTool('test_simple_text', 'Answers a text'),
    answer: () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  {
    tool: staticTool('test_image_content', 'Answers an image'),
    answer: () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }) as unknown as ToolCallResult,
  },
  {
    tool: staticTool('test_audio_content', 'Answers an audio clip'),
    answer: () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }) as unknown as ToolCallResult,
  },
  {
    tool: staticTool('test_embedded_resource', 'Answers an embedded resource'),
    answer: () =>
      ({
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ],
      }) as unknown as ToolCallResult,
  },
  {
    tool: staticTool('test_multiple_content_types', 'Answers text, an image and a resource'),
    answer: () =>
      ({
        content: [
          text('Multiple content types test:'),
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      }) as unknown as ToolCallResult,
  },
  {
    tool: staticTool('test_tool_with_progress', 'Reports progress 0, 50, 100 of 100, then answers'),
    progress: true,
    answer: () => ({ content: [text('Progress test completed')] }),
  },
  {
    tool: staticTool('test_error_handling', 'Always answers a tool error'),
    answer: () => ({ content: [text('This tool intentionally returns an error for testing')], isError: true }),
  },
  {
    tool: staticTool('json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features', JSON_SCHEMA_2020_12),
    answer: () => ({ content: [text('ok')] }),
  },
  {
    tool: staticTool('test_missing_capability', 'Needs the sampling capability (refused -32021 without it)'),
    capability: 'sampling',
    answer: () => ({ content: [text('sampling declared')] }),
  },
  {
    tool: staticTool('test_logging_tool', 'Would log only at a level the request asks for; answers a text'),
    answer: () => ({ content: [text('logging tool ran')] }),
  },
  {
    tool: staticTool('test_streaming_elicitation', 'Answers on the request stream, never with a request of its own'),
    answer: () => ({ content: [text('no elicitation needed')] }),
  },
];

const STATIC_BY_NAME = new Map(STATIC.map((f) => [f.tool.name, f]));

export const staticFixtureTools: McpTool[] = STATIC.map((f) => f.tool);

export function staticFixture(name: string): StaticFixture | undefined {
  return STATIC_BY_NAME.get(name);
}

const STATIC_RESOURCES = [
  {
    uri: 'test://static-text',
    name: 'static-text',
    mimeType: 'text/plain',
    text: 'This is the content of the static text resource.',
  },
  { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png', blob: PNG },
];

export const fixtureResources = STATIC_RESOURCES.map(({ uri, name, mimeType }) => ({ uri, name, mimeType }));

export const fixtureTemplate = {
  uriTemplate: 'test://template/{id}/data',
  name: 'template',
  title: 'Template fixture',
  description: 'A resource template whose id is echoed in its content',
  mimeType: 'application/json',
};

const TEMPLATE_URI = /^test:\/\/template\/([A-Za-z0-9_-]{1,64})\/data$/;

/** resources/read of a fixture resource, or undefined when the URI names none. */
export function readFixtureResource(uri: string) {
  const found = STATIC_RESOURCES.find((r) => r.uri === uri);
  if (found) {
    const { name: _name, ...contents } = found;
    return { contents: [contents] };
  }
  const id = TEMPLATE_URI.exec(uri)?.[1];
  if (id === undefined) return undefined;
  return {
    contents: [
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      },
    ],
  };
}
