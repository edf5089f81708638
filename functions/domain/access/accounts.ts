/** A partner account and its API Access entitlement (spec 5.2, 5.4). */
export type EntitlementStatus = 'active' | 'inactive';

export const ENTITLEMENT_STATUSES: readonly EntitlementStatus[] = ['active', 'inactive'];

export interface Account {
  readonly accountId: string;
  readonly entitlement: EntitlementStatus;
  readonly updatedAt: string;
}
