/** The public API of @resource-api/cli (scaffold). */
export {};
