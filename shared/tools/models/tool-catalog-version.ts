import { Connection, Schema } from 'mongoose';

/** One document (`_id: 'catalog'`) whose `version` changes on every catalog write, so listers know when to rebuild. */
export interface ToolCatalogVersionDoc {
  _id: string;
  version: string;
  updated_at: Date;
}

const schema = new Schema<ToolCatalogVersionDoc>(
  {
    _id: { type: String, required: true },
    version: { type: String, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'tool_catalog_version', versionKey: false },
);

export function toolCatalogVersionModel(conn: Connection) {
  return conn.models.ToolCatalogVersion ?? conn.model<ToolCatalogVersionDoc>('ToolCatalogVersion', schema);
}
