package dev.unicomm.conformance.kittest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every suite of the kit's default run ({@link KitSuites#defaultRun()}) as nested classes: {@link CoreKitTest}'s
 * suites plus collectives and MoE, and the check that the list has not fallen behind the kit
 * ({@link KitSuites#missingFrom}). A backend's kit test extends it and declares its {@link KitPlug}.
 */
public abstract class DefaultRunKitTest extends CoreKitTest {
    /** Subclasses only. */
    protected DefaultRunKitTest() {}

    /** {@link CollectivesSuite}. */
    @Nested
    public class Collectives extends CollectivesSuite {}

    /** {@link MoeSuite}. */
    @Nested
    public class Moe extends MoeSuite {}

    @Test
    void coversEverySuite() {
        assertEquals(List.of(), KitSuites.missingFrom(getClass()));
    }
}
