// Chain facts the configuration checks itself against. They live here, not in payments/, so the
// plumbing imports no capability; payments/ builds its dev accounts and network table on them.

/** The well-known public development mnemonic (anvil/hardhat default). Its keys hold nothing real. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** The chains served in testnet mode (Base Sepolia); the only ones a local token override may name. */
export const TESTNET_CHAIN_IDS: readonly number[] = [84532];
