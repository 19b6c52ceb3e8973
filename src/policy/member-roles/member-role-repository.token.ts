/** Injection token of the MemberRoleRepository (provided by the persistence module of the configured store). */
export const MEMBER_ROLE_REPOSITORY = Symbol('MEMBER_ROLE_REPOSITORY');
