package dev.unicomm.spi;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.BackendUnavailableException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The backends on the class or module path and the rules that pick one:
 * <ol>
 *   <li>an explicitly named backend ({@code -Dunicomm.backend} / {@code UNICOMM_BACKEND}) wins; an
 *       unknown name fails listing the known ones, an unavailable one fails with its cause;</li>
 *   <li>otherwise the highest-priority available backend (ties: the name, alphabetically);</li>
 *   <li>none available: {@link BackendUnavailableException} carrying one report per provider.</li>
 * </ol>
 */
public final class BackendRegistry {
    private final List<CommBackendProvider> providers;
    private final List<String> loadErrors;

    private BackendRegistry(List<CommBackendProvider> providers, List<String> loadErrors) {
        Map<String, CommBackendProvider> byName = new LinkedHashMap<>();
        for (CommBackendProvider p : providers) {
            CommBackendProvider old = byName.putIfAbsent(p.name(), p);
            if (old != null && old.getClass() != p.getClass())
                throw new IllegalStateException("two backends are both named '" + p.name() + "': "
                        + old.getClass().getName() + " and " + p.getClass().getName());
        }
        this.providers = List.copyOf(byName.values());
        this.loadErrors = List.copyOf(loadErrors);
    }

    /** The providers {@link ServiceLoader} finds (module path {@code provides} or {@code META-INF/services}). */
    public static BackendRegistry load() {
        return load(ServiceLoader.load(CommBackendProvider.class));
    }

    /** The providers visible to {@code loader} (a launcher checking the class path its ranks will have). */
    public static BackendRegistry load(ClassLoader loader) {
        return load(ServiceLoader.load(CommBackendProvider.class, loader));
    }

    private static BackendRegistry load(ServiceLoader<CommBackendProvider> loader) {
        List<CommBackendProvider> found = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        var it = loader.iterator();
        while (true) {
            try {
                if (!it.hasNext()) break;
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                // A broken provider must not hide the others; report it instead.
                errors.add(e.getMessage());
            }
        }
        return new BackendRegistry(found, errors);
    }

    /** A registry of exactly these providers (tests, embedding). */
    public static BackendRegistry of(List<CommBackendProvider> providers) {
        return new BackendRegistry(providers, List.of());
    }

    /** The providers, in discovery order. */
    public List<CommBackendProvider> providers() {
        return providers;
    }

    /** Providers that failed to load (class missing, constructor threw), as messages. */
    public List<String> loadErrors() {
        return loadErrors;
    }

    /** One report per provider, highest priority first; probes availability (never throws). */
    public List<BackendReport> reports() {
        return providers.stream().sorted(ORDER).map(BackendRegistry::report).toList();
    }

    /** A provider's report; a probe that throws counts as unavailable with that cause. */
    public static BackendReport report(CommBackendProvider p) {
        Availability a;
        try {
            a = p.availability(BackendSettings.fromEnvironment());
        } catch (Throwable t) {
            a = Availability.no("availability probe threw " + t, "report this as a bug in backend '" + p.name() + "'");
        }
        return new BackendReport(
                p.name(), p.version(), p.priority(), a.available(), a.cause(), a.fix(), p.capabilities(), a.detail());
    }

    /**
     * Picks the backend to use.
     *
     * @param explicitName the name the user asked for, or {@code null}
     * @throws IllegalArgumentException if {@code explicitName} is not a known backend
     * @throws BackendUnavailableException if the named backend, or every backend, is unavailable
     */
    public CommBackendProvider select(String explicitName) {
        if (explicitName != null) {
            CommBackendProvider p = providers.stream()
                    .filter(x -> x.name().equals(explicitName))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "unknown backend '" + explicitName + "'; known backends: " + knownNames()));
            BackendReport r = report(p);
            if (!r.available())
                throw new BackendUnavailableException(
                        "backend '" + explicitName + "' is not available here", List.of(r));
            return p;
        }
        List<BackendReport> reports = new ArrayList<>();
        for (CommBackendProvider p : providers.stream().sorted(ORDER).toList()) {
            BackendReport r = report(p);
            if (r.available()) return p;
            reports.add(r);
        }
        String summary = providers.isEmpty()
                ? "no unicomm backend found on the class or module path"
                        + (loadErrors.isEmpty() ? "" : " (load errors: " + loadErrors + ")")
                : "no unicomm backend is available here";
        throw new BackendUnavailableException(summary, reports);
    }

    /** The providers' names, sorted (for messages). */
    public String knownNames() {
        return providers.isEmpty()
                ? "(none: add a backend artifact such as dev.unicomm:backend-shm)"
                : providers.stream().map(CommBackendProvider::name).sorted().collect(Collectors.joining(", "));
    }

    private static final Comparator<CommBackendProvider> ORDER =
            Comparator.comparingInt(CommBackendProvider::priority).reversed().thenComparing(CommBackendProvider::name);
}
