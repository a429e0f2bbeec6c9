/**
 * The conformance kit: the contract between unicomm's API and every backend. A backend is
 * correct when it passes the kit.
 *
 * <h2>How it runs</h2>
 * Each suite (every abstract subclass of {@link dev.unicomm.conformance.KitSuite}; {@link
 * dev.unicomm.conformance.KitSuites#abstractSuites()} lists them: Lifecycle, Heap, Rma, Signal, Atomics,
 * Teams, BadInput, Fault, FaultInjection, Collectives, Moe) is an abstract JUnit 5 class. Before its first rule, the suite starts {@code ranks()} worker JVMs
 * ({@link dev.unicomm.conformance.KitWorker}), each one rank of a real job with its own communicator.
 * Every rule is a JUnit test that sends its SPMD body to all workers over a localhost control
 * channel; each rank runs it and reports passed / failed / skipped with a message; the parent fails
 * the test naming the ranks and their messages. A rank that does not answer within
 * {@code ruleTimeout()} is reported HUNG and the job is killed; after a hang, a lost rank, or a failure
 * that left ranks waiting, the next rule gets a fresh job, so one broken rule never cascades. A
 * failure that every rank finished keeps the job if a probe (quiet, barrier, no heap left allocated)
 * passes, so one broken data path does not pay a restart per rule.
 *
 * <h2>Running it against a backend</h2>
 * In the backend's test sources, one kit test with one {@link dev.unicomm.conformance.KitPlug} and an
 * empty nested class per suite:
 * <pre>{@code
 * class MyBackendKitTest {
 *     static final KitPlug PLUG = KitPlug.backend("mybackend").ranks(4)   // default: unicomm.kit.ranks, else 2
 *             .skipWhereUnavailable("MYBACKEND_REQUIRE", null);          // the kit's hardware gate
 *     @Nested class Rma extends RmaSuite {}
 *     @Nested class Heap extends HeapSuite {}
 * }
 * }</pre>
 * What the plug leaves unset, and every hook of a suite without a plug, defaults to a
 * {@link dev.unicomm.conformance.KitSettings} property (backend, ranks,
 * timeouts, heap size, worker JVM options, extra class path). Without writing code:
 * {@code unicomm conformance --backend mybackend -n 4 --json report.json --junit-xml xml/}
 * runs the configured suites in {@code dev.unicomm.conformance.configured}.
 *
 * <h2>Adding a suite (collectives, MoE, ...)</h2>
 * <ol>
 *   <li>Write {@code public abstract class FooSuite extends KitSuite} in this package.</li>
 *   <li>One {@code @Test} method per rule, named {@code required_foo_what} or
 *       {@code optional_foo_what}; the name is the rule id in every report. A required rule calls
 *       {@code spmd(body)}; an optional one {@code spmd(Capability.X, body)} and is skipped, with the
 *       reason, when the backend does not declare {@code X}. The harness refuses a mismatch.</li>
 *   <li>The body is a serializable lambda or method reference that gets a {@link dev.unicomm.conformance.Pe}
 *       (the communicator, rank, fresh configs): it runs in every worker JVM, so it must not capture
 *       the suite. Use JUnit assertions inside; {@link dev.unicomm.conformance.Mem} has patterns and
 *       local reads/writes that work on host and device heaps. Values a body
 *       {@linkplain dev.unicomm.conformance.Pe#report reports} come back to the test for
 *       cross-rank checks.</li>
 *   <li>Add {@code configured/FooRules extends FooSuite {}}: {@link dev.unicomm.conformance.KitSuites}
 *       finds it by scanning, so {@code unicomm conformance} runs it (a kit test fails while an
 *       abstract suite has no configured subclass); add a nested class to {@link
 *       dev.unicomm.conformance.kittest.DefaultRunKitTest} (the kit tests that extend it, e.g. {@code ShmTwoRanksTest},
 *       get it; a test checks its coverage) and to each backend's kit test that lists its suites itself.</li>
 *   <li>Show that the rules can fail: the kit's own tests wrap a real backend in deliberately broken
 *       decorators and assert exactly which rules fail.</li>
 * </ol>
 */
package dev.unicomm.conformance;
