import type {
  embedBundleModel,
  embedNonceFailureModel,
  embedNonceModel,
  embedNonceUseModel,
  embedTokenModel,
} from './model';

/** The models this capability owns, under the names the composition root registers them by. */
export interface EmbedModels {
  embedBundles: ReturnType<typeof embedBundleModel>;
  embedNonces: ReturnType<typeof embedNonceModel>;
  embedNonceUses: ReturnType<typeof embedNonceUseModel>;
  embedNonceFailures: ReturnType<typeof embedNonceFailureModel>;
  embedTokens: ReturnType<typeof embedTokenModel>;
}
