package dev.unicomm.backend.shm;

import dev.unicomm.api.Capability;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.BackendSettings;
import dev.unicomm.spi.CommBackendProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code shm} backend: PEs on one Linux host share their symmetric heaps through files in
 * {@code /dev/shm} (or {@code unicomm.shm.dir} / {@code UNICOMM_SHM_DIR}). Needs no hardware and
 * no native library, so it ranks below hardware backends.
 *
 * <p>Buffer views are tied to the buffer's lifetime with {@code MemorySegment.reinterpret}, a
 * restricted method: run with {@code --enable-native-access=ALL-UNNAMED} (class path) or
 * {@code --enable-native-access=dev.unicomm.backend.shm} (module path), as {@code bin/unicomm} and
 * the job launcher do; without it the JDK prints a warning once.
 */
public final class ShmBackendProvider implements CommBackendProvider {
    /** Below every hardware backend: it is the fallback that always works. */
    public static final int PRIORITY = BackendPriority.HOST;

    static final String DEFAULT_DIR = "/dev/shm";
    /** The heap files' directory setting, {@code unicomm.shm.dir} (listed by {@link ShmSettingsProvider}). */
    static final String DIR_KEY = "shm.dir";
    /** Appended to every fix: the troubleshooting page's section for this backend. */
    private static final String SEE = "; see docs/troubleshooting.md#shm-devshm-missing-or-not-writable";

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.RMA,
            Capability.NONBLOCKING_RMA,
            Capability.ATOMICS,
            Capability.SIGNALS,
            Capability.TEAMS,
            Capability.DIRECT_PEER_ACCESS,
            Capability.MULTI_PROCESS,
            Capability.ELASTIC));

    /** Cheap: nothing is touched until {@link #availability()} or {@link #open}. */
    public ShmBackendProvider() {}

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public Availability availability() {
        return availability(BackendSettings.fromEnvironment());
    }

    @Override
    public Availability availability(BackendSettings settings) {
        return availability(directory(settings.get(DIR_KEY)));
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        Path dir = directory(context.config().property(DIR_KEY, null));
        availability(dir).ensureAvailable(this);
        return ShmCommunicator.open(context, dir);
    }

    /** Linux, and {@code dir} a directory where this user can create files. Never throws. */
    static Availability availability(Path dir) {
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase().contains("linux"))
            return Availability.no(
                    "the shm backend needs Linux (this is " + os + ")", "run on Linux, or use another backend" + SEE);
        if (!Files.isDirectory(dir))
            return Availability.no(
                    dir + " does not exist",
                    "mount a tmpfs there (mount -t tmpfs tmpfs " + dir
                            + ") or point unicomm.shm.dir / UNICOMM_SHM_DIR at a writable tmpfs directory" + SEE);
        try {
            Path probe = Files.createTempFile(dir, SegmentFiles.PREFIX + "probe-", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            return Availability.no(
                    "cannot create files in " + dir + ": " + e.getMessage(),
                    e,
                    "make " + dir + " writable for this user, or point unicomm.shm.dir / UNICOMM_SHM_DIR elsewhere"
                            + SEE);
        }
        return Availability.yes();
    }

    /** The directory for the heap files: the setting if given, else {@value #DEFAULT_DIR}. */
    static Path directory(String setting) {
        return Path.of(setting != null && !setting.isBlank() ? setting : DEFAULT_DIR);
    }
}
