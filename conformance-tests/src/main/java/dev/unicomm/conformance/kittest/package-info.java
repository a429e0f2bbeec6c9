/**
 * The bases a backend's kit test may extend instead of declaring one nested class per suite: {@link
 * dev.unicomm.conformance.kittest.CoreKitTest} (the communicator's own suites) and {@link
 * dev.unicomm.conformance.kittest.DefaultRunKitTest} (every suite of the default run). A package of its own: the
 * default run's list names the collectives suite, which depends on the kit's core package.
 */
package dev.unicomm.conformance.kittest;
