/**
 * The API's own machinery, not exported: the validating wrappers that stand between users and
 * backends (every argument is checked here, once, for every backend) and the rendezvous hook.
 */
package dev.unicomm.core;
