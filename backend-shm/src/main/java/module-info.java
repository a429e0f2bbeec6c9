/**
 * unicomm's embedded default backend: every PE's symmetric heap is a file in {@code /dev/shm} that
 * every other PE of the host maps, so RMA is a plain copy and atomics are CPU atomics. Pure Java (FFM).
 */
module dev.unicomm.backend.shm {
    requires dev.unicomm.api;

    provides dev.unicomm.spi.CommBackendProvider with
            dev.unicomm.backend.shm.ShmBackendProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.backend.shm.ShmSettingsProvider;
}
