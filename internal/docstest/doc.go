// Package docstest checks the documentation against the module: the README
// stays short and gives the test command .ci/run runs, every relative link
// in README.md and docs/, and the Documentation= URL of every systemd unit,
// leads to a file and heading that exist, and the troubleshooting chapter
// names every status state and doctor check the code has, and the pages,
// example configs and units give the server's certificate and key the
// same names. Its tests are the checks; it holds no other code.
package docstest
