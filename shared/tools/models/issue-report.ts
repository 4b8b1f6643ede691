import { Connection, Schema } from 'mongoose';

export type LookupMethod = 'object_id' | 'slug' | 'exact_name' | 'not_found';

/** A problem report about a product (`POST /issues/report`), kept even when the product is unknown. */
export interface IssueReportDoc {
  _id: string;
  wallet: string;
  product_id: string;
  product_found: boolean;
  lookup_method: LookupMethod;
  resolved_product_id?: string;
  product_name?: string;
  error_message: string;
  recommended_improvements?: string;
  instance_id?: string;
  status: 'open';
  created_at: Date;
}

const schema = new Schema<IssueReportDoc>(
  {
    _id: { type: String, required: true },
    wallet: { type: String, required: true },
    product_id: { type: String, required: true },
    product_found: { type: Boolean, required: true },
    lookup_method: { type: String, required: true },
    resolved_product_id: String,
    product_name: String,
    error_message: { type: String, required: true },
    recommended_improvements: String,
    instance_id: String,
    status: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'issue_reports', versionKey: false },
);
schema.index({ wallet: 1, created_at: -1 });

export function issueReportModel(conn: Connection) {
  return conn.models.IssueReport ?? conn.model<IssueReportDoc>('IssueReport', schema);
}
