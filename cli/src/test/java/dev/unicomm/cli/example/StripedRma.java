package dev.unicomm.cli.example;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.ForwardingRma;

/**
 * The example backend's data path: a large put goes out as fixed-size stripes, last stripe first (as a
 * NIC with several queues might deliver them). Every stripe is issued before put returns, so the
 * source is reusable on return (§2.2) and quiet completes them all (§2.3); the kit's
 * {@code required_rma_put_keeps_byte_order} checks that each byte lands at its own offset (§2.1).
 * Everything else is forwarded by {@link ForwardingRma}.
 */
final class StripedRma extends ForwardingRma {
    static final long DEFAULT_STRIPE = 64 << 10;
    private final long stripe;

    StripedRma(Rma transport, long stripe) {
        super(transport);
        if (stripe <= 0) throw new IllegalArgumentException("unicomm.vendorx.stripe must be positive, got " + stripe);
        this.stripe = stripe;
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        if (bytes <= stripe) {
            delegate().put(dst, dstOffset, src, srcOffset, bytes, pe); // the transport validates the arguments
            return;
        }
        for (long at = (bytes - 1) / stripe * stripe; at >= 0; at -= stripe)
            delegate().put(dst, dstOffset + at, src, srcOffset + at, Math.min(stripe, bytes - at), pe);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        if (bytes <= stripe) {
            delegate().putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
            return;
        }
        for (long at = (bytes - 1) / stripe * stripe; at >= 0; at -= stripe)
            delegate().putNbi(dst, dstOffset + at, src, srcOffset + at, Math.min(stripe, bytes - at), pe);
    }
}
