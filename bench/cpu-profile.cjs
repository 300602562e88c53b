// Preloaded into the toolgate server by the calls section when BENCH_CPU_PROF names a directory
// (node refuses --cpu-prof in NODE_OPTIONS): the first SIGUSR2 starts V8's CPU profiler, the next
// stops it and writes <dir>/toolgate-<pid>.cpuprofile, so the profile covers the calls under load only.
const { Session } = require('node:inspector')
const { writeFileSync } = require('node:fs')
const path = require('node:path')

const session = new Session()
session.connect()
let running = false
process.on('SIGUSR2', () => {
  if (!running) {
    running = true
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')))
    return
  }
  running = false
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) writeFileSync(path.join(process.env.BENCH_CPU_PROF, `toolgate-${process.pid}.cpuprofile`), JSON.stringify(profile))
  })
})
