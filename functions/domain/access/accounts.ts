/**
 * A partner account and its API Access entitlement (docs/partner-guide.md#getting-and-revoking-keys,
 * docs/partner-guide.md#what-you-get-when-access-fails).
 */
export type EntitlementStatus = 'active' | 'inactive';

export const ENTITLEMENT_STATUSES: readonly EntitlementStatus[] = ['active', 'inactive'];

export interface Account {
  readonly accountId: string;
  readonly entitlement: EntitlementStatus;
  readonly updatedAt: string;
}
