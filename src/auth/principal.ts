export type Role = 'viewer' | 'editor' | 'admin';

/** Who is calling: from the JWT claims sub, workspace and role. */
export interface Principal {
  userId: string;
  workspace: string;
  role: Role;
}

/** editor and admin may propose edits and resume; viewer only reads. */
export function canEdit(principal: Principal): boolean {
  return principal.role === 'editor' || principal.role === 'admin';
}
