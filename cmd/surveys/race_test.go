//go:build race

package main

// raceEnabled: the test binary runs under the race detector (timings
// quoted by tests are then several times slower than the real server's).
const raceEnabled = true
