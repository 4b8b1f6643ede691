import { Connection, Schema } from 'mongoose';

/** How an action runs: an HTTP vendor endpoint, or a handler built into the service. */
export type ActionRunner =
  | {
      kind: 'http';
      url: string;
      method: 'POST' | 'GET';
      timeout_ms: number;
      auth_header?: string;
      auth_scheme?: string;
      secret?: string;
    }
  | { kind: 'builtin'; handler: string; timeout_ms: number };

export interface ToolActionDoc {
  slug: string;
  name: string;
  description: string;
  /** The action's JSON Schema as JSON text: schemas carry `$`-keys FerretDB cannot store. */
  parameters_schema_json: string;
  credits: number;
  /** Direct x402 price in USD ("0.05"); null: credits only. */
  x402_usd: string | null;
  runner: ActionRunner;
}

/**
 * A product (tool) of the catalog. `_id` is a 24-hex object id; `slug` unique. `search_terms`
 * holds the lower-case words of name, display name and description: a multikey index on it
 * serves the catalog's word-prefix search without scanning every product on MongoDB.
 */
export interface ToolProductDoc {
  _id: string;
  slug: string;
  name: string;
  display_name: string;
  description: string;
  categories: string[];
  active: boolean;
  private: boolean;
  /** Product-declared extra fields as JSON text, passed through unchanged. */
  extra_json: string;
  actions: ToolActionDoc[];
  search_terms: string[];
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<ToolProductDoc>(
  {
    _id: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    display_name: { type: String, required: true },
    description: { type: String, default: '' },
    categories: { type: [String], default: [] },
    active: { type: Boolean, required: true },
    private: { type: Boolean, required: true },
    extra_json: { type: String, default: '{}' },
    actions: { type: Schema.Types.Mixed, default: [] },
    search_terms: { type: [String], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'tool_products', versionKey: false },
);
schema.index({ active: 1, private: 1, name: 1, _id: 1 });
schema.index({ search_terms: 1 });
schema.index({ categories: 1 });
schema.index({ name: 1 });
// The operator's console pages the whole catalog by name on this.
schema.index({ name: 1, _id: 1 });

export function toolProductModel(conn: Connection) {
  return conn.models.ToolProduct ?? conn.model<ToolProductDoc>('ToolProduct', schema);
}
