import type express from 'express';
import type { Db } from '../db/db';
import type { IdentityCheck } from '../upstream-kit/verify-identity';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import { adminUnitsUpstream } from './admin-units/admin-units-upstream';
import { directoryUpstream } from './directory/directory-upstream';
import { legalUpstream } from './legal/legal-upstream';
import { mofCatalogsUpstream } from './mof-catalogs/mof-catalogs-upstream';

export interface SeedOptions {
  /** Seed of the generator: the same seed gives the same records and ids. Default 1. */
  seed?: number;
  /**
   * Size relative to the embedded default (1 ≈ 6,000 legal documents, 200+ bailiff offices and
   * ~3,000 other directory records). Tests use small values such as 0.05; every dataset keeps a
   * minimum so none is empty.
   */
  scale?: number;
}

/** A built-in upstream service: how the entry point migrates, seeds and serves it. */
export interface BuiltinUpstream {
  /** Name in config/upstreams.yaml. */
  name: string;
  /** Migration sets to run, in order, before seeding and serving (migrate(db, set)). */
  migrationSets: string[];
  /** Loads sample data once per database (a marker table records it); later calls do nothing. */
  seed(db: Db, opts: SeedOptions): Promise<void>;
  /**
   * Dataset routes and /healthz; with identity, dataset requests need the gateway's assertion.
   * `db` serves requests, its queries bounded by the gateway's deadline; `setupDb` (default `db`)
   * is the same database without that deadline, for work at start whose queries may take longer
   * (admin-units: its reference data and boundary index), which bounds them as that work needs.
   */
  createApp(deps: {
    db: Db;
    setupDb?: Db;
    logger: Logger;
    identity?: IdentityCheck;
    clock?: Clock;
  }): express.Express;
}

export const BUILTIN_UPSTREAMS: Readonly<Record<string, BuiltinUpstream>> = {
  legal: legalUpstream,
  directory: directoryUpstream,
  'mof-catalogs': mofCatalogsUpstream,
  'admin-units': adminUnitsUpstream,
};

/** The built-in upstream of that name, if there is one: an own key only ("constructor" is a valid upstream name). */
export const builtinUpstream = (name: string): BuiltinUpstream | undefined =>
  Object.hasOwn(BUILTIN_UPSTREAMS, name) ? BUILTIN_UPSTREAMS[name] : undefined;
