/**
 * The most locations a generated account may have. On its own, free of imports, because the
 * configuration reads it too, and the container's healthcheck bundles the configuration.
 */
export const MAX_GENERATED_LOCATIONS = 10;
