package dev.unicomm.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import dev.unicomm.archrules.BackendRules;

/**
 * The project's architecture, as rules. Applied to the real classes and, in a test, to bad fixtures. The rules any backend
 * obeys live in comm-archrules ({@link BackendRules}), published for backends built elsewhere; the rest are this tree's own.
 */
final class ArchitectureRules {
    private ArchitectureRules() {}

    /** The API and SPI know no backend, and nothing built on top of them (published in comm-archrules). */
    static final ArchRule API_KNOWS_NO_BACKEND = BackendRules.API_KNOWS_NO_BACKEND;

    /** No backend depends on another backend (published in comm-archrules). */
    static final ArchRule BACKENDS_ARE_INDEPENDENT = BackendRules.BACKENDS_ARE_INDEPENDENT;

    /** Portable algorithms use the API only. */
    static final ArchRule COLLECTIVES_USE_THE_API_ONLY = noClasses()
            .that()
            .resideInAPackage("dev.unicomm.collectives..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.unicomm.backend..", "org.bytedeco..")
            .because("portable collectives and MoE must work on every backend")
            .allowEmptyShould(true);

    /**
     * JavaCPP and FFM downcalls stay in a backend's internal package (comm-archrules' rule). One exemption: the
     * interop-javacpp adapter package, whose public API takes a framework's JavaCPP {@code Pointer}
     * (it reads the pointer's address and binds no native code); its dependency is on JavaCPP's
     * {@code Pointer} types only, which {@link #INTEROP_SEES_ONLY_POINTERS} checks.
     */
    static final ArchRule NATIVES_STAY_INTERNAL = BackendRules.nativesStayInternal("dev.unicomm.interop.javacpp");

    /** The interop exemption is narrow: the adapter uses JavaCPP's pointer classes, not its loader or natives. */
    static final ArchRule INTEROP_SEES_ONLY_POINTERS = noClasses()
            .that()
            .resideInAPackage("dev.unicomm.interop.javacpp")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.bytedeco.javacpp.annotation..", "org.bytedeco.javacpp.tools..")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.bytedeco.javacpp.Loader")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("java.lang.foreign.Linker")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("java.lang.foreign.SymbolLookup")
            .because(
                    "the adapter only reads addresses of a framework's pointers; binding natives belongs in a backend's internal package")
            .allowEmptyShould(true);

    /** JNI {@code native} methods too (published in comm-archrules). */
    static final ArchRule NATIVE_METHODS_STAY_INTERNAL = BackendRules.NATIVE_METHODS_STAY_INTERNAL;

    /** The one front door: in the API, only {@code Unicomm} reaches the SPI's selection or the internals. */
    static final ArchRule ONE_FRONT_DOOR = noClasses()
            .that()
            .resideInAPackage("dev.unicomm.api..")
            .and()
            .doNotHaveFullyQualifiedName("dev.unicomm.api.Unicomm")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.unicomm.spi..", "dev.unicomm.internal..")
            .because(
                    "users open everything through Unicomm (as SLF4J's LoggerFactory); a second door re-implements selection")
            .allowEmptyShould(true);

    /** The SPI is a contract for backends: it names API types, never the validating layer or the store behind it. */
    static final ArchRule SPI_KNOWS_NO_INTERNALS = noClasses()
            .that()
            .resideInAPackage("dev.unicomm.spi..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.unicomm.internal..")
            .because("a backend implements the SPI; comm-api's internals may change under it")
            .allowEmptyShould(true);

    /**
     * comm-api's internals are used by comm-api, the launcher (TLS key), the kit (fault rules), the CLI, and
     * test-support (its thread jobs wrap a backend in the validating layer, as Unicomm.connect does) only.
     */
    static final ArchRule INTERNALS_STAY_INSIDE = noClasses()
            .that()
            .resideOutsideOfPackages(
                    "dev.unicomm.api..",
                    "dev.unicomm.internal..",
                    "dev.unicomm.launch..",
                    "dev.unicomm.conformance..",
                    "dev.unicomm.cli..",
                    "dev.unicomm.testsupport..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.unicomm.internal..")
            .because("backends, collectives and users see validated objects through the API and SPI only")
            .allowEmptyShould(true);

    /** Packages form no cycle; the front door's edges (Unicomm -> spi, internal) are the one designed exception. */
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("dev.unicomm.(**)")
            .should()
            .beFreeOfCycles()
            .ignoreDependency(
                    DescribedPredicate.describe(
                            "Unicomm", (JavaClass c) -> c.getName().startsWith("dev.unicomm.api.Unicomm")),
                    DescribedPredicate.alwaysTrue())
            .because("a cycle between packages means neither can be understood, changed or tested alone")
            .allowEmptyShould(true);
}
