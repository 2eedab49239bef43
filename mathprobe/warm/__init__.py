"""The warm runner and the local Prefect server it serves with (`mathprobe server`).

launch: the `mathprobe` entry point, which hands a command to the runner when one serves;
control: the runner's record and how to start, ask and stop it (standard library only: launch
imports it on every command); runner: the runner's own process, and warm_up what it imports
and works out before it serves; server: the local Prefect server that `mathprobe server start`
(or the first command that finds none) starts, which commands find before they import
Prefect."""
