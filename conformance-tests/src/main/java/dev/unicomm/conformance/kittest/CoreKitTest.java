package dev.unicomm.conformance.kittest;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The suites of the communicator itself (lifecycle, heap, RMA, signals, atomics, teams, bad input, faults) as
 * nested classes, for a backend's kit test to extend instead of declaring one empty nested class per suite:
 *
 * <pre>{@code
 * class VendorXCoreKitTest extends CoreKitTest {
 *     static final KitPlug PLUG = KitPlug.backend("vendorx").ranks(4);
 * }
 * }</pre>
 *
 * The subclass holds the {@link KitPlug}; the nested suites run in it and count under it (as their kit test: {@code KitSuite.kitTest()}),
 * so two subclasses at two sizes are two runs. After the class, the kit's entry check ({@link
 * KitSuites#assertRulesRan}) runs unless the class already failed or was skipped (a set-up assumption). A suite that
 * needs a hook of its own stays a nested class of the subclass. {@link DefaultRunKitTest} adds collectives and MoE.
 */
@ExtendWith(CoreKitTest.RulesRan.class)
public abstract class CoreKitTest {
    /** Subclasses only. */
    protected CoreKitTest() {}

    /** {@link LifecycleSuite}. */
    @Nested
    public class Lifecycle extends LifecycleSuite {}

    /** {@link HeapSuite}. */
    @Nested
    public class Heap extends HeapSuite {}

    /** {@link RmaSuite}. */
    @Nested
    public class Rma extends RmaSuite {}

    /** {@link SignalSuite}. */
    @Nested
    public class Signals extends SignalSuite {}

    /** {@link AtomicsSuite}. */
    @Nested
    public class Atomics extends AtomicsSuite {}

    /** {@link TeamsSuite}. */
    @Nested
    public class Teams extends TeamsSuite {}

    /** {@link BadInputSuite}. */
    @Nested
    public class BadInput extends BadInputSuite {}

    /** {@link FaultSuite}. */
    @Nested
    public class Faults extends FaultSuite {}

    /** The entry check after a kit test's class (not after each nested suite, which inherit the extension). */
    static final class RulesRan implements AfterAllCallback {
        @Override
        public void afterAll(ExtensionContext context) {
            Class<?> kitTest = context.getRequiredTestClass();
            if (CoreKitTest.class.isAssignableFrom(kitTest)
                    && context.getExecutionException().isEmpty()) KitSuites.assertRulesRan(kitTest);
        }
    }
}
