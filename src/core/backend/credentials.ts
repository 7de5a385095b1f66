// Credentials of a backend: HTTP Basic, a password with a user name.

/** The user name when a password is given without one (opencode's own). */
export const DEFAULT_USERNAME = 'opencode';
