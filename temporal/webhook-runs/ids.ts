/** Run ids are the Temporal workflow ids of their runs: `run_<24 hex>`. */
export const RUN_ID = /^run_[0-9a-f]{24}$/;
