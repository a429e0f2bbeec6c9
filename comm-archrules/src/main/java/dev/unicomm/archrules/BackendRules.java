package dev.unicomm.archrules;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.elements.ClassesShould;
import com.tngtech.archunit.lang.syntax.elements.GivenMethodsConjunction;
import java.util.List;

/**
 * The rules every unicomm backend obeys, in this repository or outside it. A vendor's build checks its own classes:
 *
 * <pre>{@code
 * JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
 *         .importPackages("com.vendorx.unicomm");
 * BackendRules.check("com.vendorx.unicomm", classes);
 * }</pre>
 *
 * unicomm's own architecture-tests apply the same rules to every in-tree backend, and the tree-wide ones
 * ({@link #API_KNOWS_NO_BACKEND}, {@link #BACKENDS_ARE_INDEPENDENT}) to the whole repository.
 */
public final class BackendRules {
    private BackendRules() {}

    /** The API and SPI know no backend, and nothing built on top of them. */
    public static final ArchRule API_KNOWS_NO_BACKEND = noClasses()
            .that()
            .resideInAnyPackage("dev.unicomm.api..", "dev.unicomm.spi..", "dev.unicomm.internal..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.unicomm.backend..",
                    "dev.unicomm.collectives..",
                    "dev.unicomm.conformance..",
                    "dev.unicomm.cli..",
                    "dev.unicomm.benchmarks..",
                    "dev.unicomm.launch..")
            .because("comm-api must stay hardware-neutral: backends plug in through the SPI")
            .allowEmptyShould(true);

    /** No in-tree backend depends on another backend. */
    public static final ArchRule BACKENDS_ARE_INDEPENDENT = slices().matching("dev.unicomm.backend.(*)..")
            .should()
            .notDependOnEachOther()
            .because("each backend is a separate artifact chosen by class path")
            .allowEmptyShould(true);

    /** JNI {@code native} methods only in an {@code internal} package. */
    public static final ArchRule NATIVE_METHODS_STAY_INTERNAL =
            declaredInInternal(methods().that().haveModifier(JavaModifier.NATIVE));

    /**
     * JavaCPP and FFM downcalls ({@code Linker}, {@code SymbolLookup}) only in an {@code internal} package, apart from
     * the {@code exempt} packages named (each needs its own narrower rule).
     */
    public static ArchRule nativesStayInternal(String... exempt) {
        String[] outside = new String[exempt.length + 1];
        outside[0] = "..internal..";
        System.arraycopy(exempt, 0, outside, 1, exempt.length);
        return noNativesIn(resideOutsideOfPackages(outside));
    }

    /** In a backend under {@code root}, JavaCPP and FFM downcalls only in an {@code internal} package. */
    public static ArchRule nativesStayInternalIn(String root) {
        return noNativesIn(resideInAPackage(root + "..").and(resideOutsideOfPackage("..internal..")));
    }

    private static ArchRule noNativesIn(DescribedPredicate<JavaClass> classes) {
        return noClasses()
                .that(classes)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.bytedeco..")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.lang.foreign.Linker")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.lang.foreign.SymbolLookup")
                .because("native bindings are a backend's internal detail")
                .allowEmptyShould(true);
    }

    /** In a backend under {@code root}, JNI {@code native} methods only in an {@code internal} package. */
    public static ArchRule nativeMethodsStayInternalIn(String root) {
        return declaredInInternal(methods()
                .that()
                .areDeclaredInClassesThat()
                .resideInAPackage(root + "..")
                .and()
                .haveModifier(JavaModifier.NATIVE));
    }

    private static ArchRule declaredInInternal(GivenMethodsConjunction nativeMethods) {
        return nativeMethods
                .should()
                .beDeclaredInClassesThat()
                .resideInAPackage("..internal..")
                .because("native bindings are a backend's internal detail")
                .allowEmptyShould(true);
    }

    /** A backend whose classes live under {@code root} depends on no unicomm backend but itself. */
    public static ArchRule noOtherBackend(String root) {
        return noClassUnder(root)
                .dependOnClassesThat(resideInAPackage("dev.unicomm.backend..")
                        .and(resideInAPackage(root + "..").negate()))
                .because(
                        "each backend is a separate artifact chosen by class path: reach another one through the SPI, if at all")
                .allowEmptyShould(true);
    }

    /** A backend under {@code root} reaches unicomm only through its API and SPI (no internals, kit, collectives or cli). */
    public static ArchRule apiAndSpiOnly(String root) {
        return noClassUnder(root)
                .dependOnClassesThat(resideInAPackage("dev.unicomm..")
                        .and(resideInAnyPackage("dev.unicomm.api..", "dev.unicomm.spi..", root + "..")
                                .negate()))
                .because("a backend implements the SPI; everything else of unicomm may change under it")
                .allowEmptyShould(true);
    }

    /** A rule's start: no class of the backend under {@code root} should ... */
    private static ClassesShould noClassUnder(String root) {
        return noClasses().that().resideInAPackage(root + "..").should();
    }

    /** The rules a backend under {@code root} obeys. */
    public static List<ArchRule> forBackend(String root) {
        return List.of(
                nativesStayInternalIn(root),
                nativeMethodsStayInternalIn(root),
                noOtherBackend(root),
                apiAndSpiOnly(root));
    }

    /** Checks {@code classes} (a backend's own, imported without its tests) against {@link #forBackend}; throws on the first broken rule. */
    public static void check(String root, JavaClasses classes) {
        for (ArchRule rule : forBackend(root)) rule.check(classes);
    }
}
