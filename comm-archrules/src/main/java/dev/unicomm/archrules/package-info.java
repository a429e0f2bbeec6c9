/**
 * unicomm's architecture rules for backends, published so that a backend built outside this repository can run them
 * in its own tests ({@link dev.unicomm.archrules.BackendRules}). Depends on ArchUnit only, not on unicomm's code; a
 * backend's test scope and unicomm's architecture-tests depend on it.
 */
package dev.unicomm.archrules;
