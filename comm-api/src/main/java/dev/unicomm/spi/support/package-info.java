/**
 * Building blocks that backends share (part of the SPI): the bookkeeping of a symmetric buffer
 * ({@link dev.unicomm.spi.support.HeapBlock}, {@link dev.unicomm.spi.support.LocalCopyBlock}) and a
 * team that is a list of world ranks ({@link dev.unicomm.spi.support.RankListTeam},
 * {@link dev.unicomm.spi.support.StoreTeam}). Backends may extend them; nothing here knows a backend.
 */
package dev.unicomm.spi.support;
