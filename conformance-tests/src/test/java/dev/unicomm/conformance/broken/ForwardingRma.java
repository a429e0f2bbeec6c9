package dev.unicomm.conformance.broken;

import dev.unicomm.api.Rma;

/** The SPI's forwarding base, with the real backend's RMA at hand as {@code raw} for the broken decorators. */
class ForwardingRma extends dev.unicomm.spi.ForwardingRma {
    final Rma raw;

    ForwardingRma(Rma raw) {
        super(raw);
        this.raw = raw;
    }
}
