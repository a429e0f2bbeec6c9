/**
 * The multi-host test bed for this project's own tests: {@code @MultiHost} and its JUnit extension run a
 * test's ranks on namespaces of this machine ({@code TestBed}). Test scope only: no main code may depend on it.
 */
package dev.unicomm.testsupport.hosts;
