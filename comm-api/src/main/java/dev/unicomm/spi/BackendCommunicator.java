package dev.unicomm.spi;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import java.util.Optional;

/**
 * A backend's side of one communicator. The API wraps it in a validating {@link Communicator}:
 * every argument that reaches these methods is already checked, and buffers passed in are the
 * backend's own (unwrapped).
 */
public interface BackendCommunicator extends AutoCloseable {

    int rank();

    int size();

    /** The heap; its buffers are the backend's own objects. */
    SymmetricHeap heap();

    /** RMA on this backend's buffers. */
    Rma rma();

    /** The world team. */
    Team world();

    /** World barrier that also completes this PE's outstanding RMA. */
    void barrier();

    /** Whether RMA's local side ({@code Memory} arguments) may be memory of this kind. */
    boolean acceptsLocal(MemoryKind kind);

    /** Native collectives, for backends that declare {@code NATIVE_COLLECTIVES}. */
    default Optional<Collectives> nativeCollectives() {
        return Optional.empty();
    }

    /**
     * Native MoE, for backends that declare {@code NATIVE_MOE}. The backend allocates what the buffer
     * needs from its own heap; the validating layer owns the returned buffer as a whole.
     */
    default Optional<MoeBuffer> nativeMoe(MoeConfig config) {
        return Optional.empty();
    }

    /** The device runtime of device backends. */
    default Optional<DeviceRuntime> device() {
        return Optional.empty();
    }

    /**
     * A barrier that carries call words, if the backend has one as cheap as its barrier; the API then
     * checks every collective call's sequence and kind through it, and a rank that rejects its own
     * arguments fails every rank's call. Without it calls run unchecked (only the implementations' own
     * checks apply): backends should provide one.
     */
    default Optional<CallAgreement> callAgreement() {
        return Optional.empty();
    }

    /** Point-to-point endpoints of backends that declare {@code P2P_ENDPOINTS}. */
    default Optional<Endpoints> endpoints() {
        return Optional.empty();
    }

    /** Releases everything (collective). */
    @Override
    void close();
}
