package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.backend.nvshmem.NvshmemBackendProvider;
import dev.unicomm.spi.BackendRegistry;

/** Prints the nvshmem backend's availability report (what {@code unicomm info} shows for it). */
public final class ProbeMain {
    public static void main(String[] args) {
        var r = BackendRegistry.report(new NvshmemBackendProvider());
        System.out.println("nvshmem backend: available=" + r.available()
                + (r.available() ? "" : ", cause: " + r.cause() + ", fix: " + r.fix()));
        System.out.println("capabilities: " + r.capabilities());
    }
}
