package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.unicomm.archrules.BackendRules;
import java.util.List;

/** Checks the real production classes of every module (test classes, and so the bad fixtures, are excluded). */
@AnalyzeClasses(packages = "dev.unicomm", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule api_knows_no_backend = ArchitectureRules.API_KNOWS_NO_BACKEND;

    @ArchTest
    static final ArchRule backends_are_independent = ArchitectureRules.BACKENDS_ARE_INDEPENDENT;

    @ArchTest
    static final ArchRule collectives_use_the_api_only = ArchitectureRules.COLLECTIVES_USE_THE_API_ONLY;

    @ArchTest
    static final ArchRule natives_stay_internal = ArchitectureRules.NATIVES_STAY_INTERNAL;

    @ArchTest
    static final ArchRule native_methods_stay_internal = ArchitectureRules.NATIVE_METHODS_STAY_INTERNAL;

    @ArchTest
    static final ArchRule interop_sees_only_pointers = ArchitectureRules.INTEROP_SEES_ONLY_POINTERS;

    @ArchTest
    static final ArchRule one_front_door = ArchitectureRules.ONE_FRONT_DOOR;

    @ArchTest
    static final ArchRule spi_knows_no_internals = ArchitectureRules.SPI_KNOWS_NO_INTERNALS;

    @ArchTest
    static final ArchRule internals_stay_inside = ArchitectureRules.INTERNALS_STAY_INSIDE;

    @ArchTest
    static final ArchRule no_package_cycles = ArchitectureRules.NO_PACKAGE_CYCLES;

    /** Every in-tree backend obeys the published rules a backend built elsewhere runs on itself (comm-archrules). */
    @ArchTest
    static void every_backend_obeys_the_published_backend_rules(JavaClasses classes) {
        for (String backend : List.of("shm", "rdma", "ucx", "nvshmem", "ascend")) {
            String root = "dev.unicomm.backend." + backend;
            assertTrue(classes.containPackage(root), "no classes of " + root + " were imported");
            BackendRules.check(root, classes);
        }
    }
}
