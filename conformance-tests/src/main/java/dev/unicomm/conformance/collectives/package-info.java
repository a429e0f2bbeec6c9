/**
 * The kit's collectives rules ({@code CollectivesSuite}) and their plain-Java reference. Depends on the API
 * and the kit's harness; a backend's kit tests extend the suite, nothing else may depend on it.
 */
package dev.unicomm.conformance.collectives;
