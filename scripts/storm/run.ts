// One storm, with or without kills (scripts/storm.ts, scripts/crash.ts): the deliveries into a
// server, then the same events once each in time order into a second, fresh server, and every
// check between the two. Exits 1 on any failed check.
import type { ServerProcess } from '../../test/support/process'
import { startSmtp } from '../../test/support/smtp'
import { inTimeOrder, makeStorm, seededRandom } from './events'
import {
  apiViews,
  Checks,
  checkMail,
  compareSnapshots,
  compareViews,
  countBy,
  drainOutbox,
  dropDatabases,
  firstOutcome,
  freshStore,
  integrityCheck,
  presignWallet,
  replaySerially,
  seedUsers,
  sendAll,
  serverEnv,
  Stack,
  type Sent,
  snapshot,
  start,
  startWorld,
  stop,
  timeLimit,
  withDb,
} from './harness'

export interface StormOptions {
  users: number
  deliveries: number
  duplicates: number
  concurrency: number
  seed: number
  binary?: string
  engine: 'sqlite' | 'postgres'
  timeoutSeconds: number
  /** SIGKILLs while the deliveries run (scripts/crash.ts); 0 for the plain storm */
  kills: number
}

export async function runStorm(o: StormOptions): Promise<void> {
  const stack = new Stack()
  timeLimit(o.timeoutSeconds, stack)
  const wall = performance.now()
  const crash = o.kills > 0
  const name = crash ? 'crash' : 'storm'
  console.log(
    `${name}: ${o.deliveries.toLocaleString('en-US')} deliveries (${Math.round(o.duplicates * 100)} % repeats, shuffled) for ${o.users.toLocaleString('en-US')} users, ` +
      `${o.concurrency} senders${crash ? `, ${o.kills} SIGKILLs` : ''}; server ${o.binary ?? 'bun src/main.ts serve'} on ${o.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}; seed ${o.seed}`,
  )
  const checks = new Checks()
  try {
    const world = await startWorld(stack)
    const run = Date.now().toString(36)
    const userIds = Array.from({ length: o.users }, (_, i) => `storm${run}u${i}`)
    const storm = makeStorm(userIds, o.deliveries, o.duplicates, o.seed, run)
    console.log(
      `events: ${storm.events.length.toLocaleString('en-US')} distinct (${Object.entries(countBy(storm.events, (e) => e.provider))
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ', ',
        )}; ${Object.keys(countBy(storm.events, (e) => e.type)).length} types), ${(storm.deliveries.length - storm.events.length).toLocaleString('en-US')} repeats`,
    )
    // PayPal signs a delivery once (RSA); done before the clock starts, as the provider's own cost.
    presignWallet(storm.events, world)

    // --- the storm -------------------------------------------------------------------------------
    const liveStore = await freshStore(stack, o.engine)
    await seedUsers(liveStore, userIds)
    const liveEnv = serverEnv(liveStore, world, world.smtp, crash ? { MAIL_SEND_TIMEOUT_MS: '1000' } : {})
    let server: ServerProcess = await start(stack, liveEnv, o.binary)
    liveEnv.PORT = new URL(server.url).port

    const kills: number[] = []
    let restartMs = 0
    let acked = 0
    let killer: Promise<void> = Promise.resolve()
    if (crash) {
      // Kill points spread over the storm, each at a random number of acknowledged deliveries, then a random few ms later.
      const r = seededRandom(o.seed ^ 0x5eed)
      const points = Array.from({ length: o.kills }, () => Math.floor(o.deliveries * (0.02 + 0.93 * r.next()))).sort((a, b) => a - b)
      killer = (async () => {
        for (const point of points) {
          while (acked < point) await Bun.sleep(2)
          await Bun.sleep(r.int(40))
          server.kill('SIGKILL')
          await server.exited
          kills.push(Date.now())
          const t = performance.now()
          for (let attempt = 0; ; attempt++) {
            try {
              server = await start(stack, liveEnv, o.binary)
              break
            } catch (error) {
              if (attempt >= 5) throw error
              await Bun.sleep(200)
            }
          }
          restartMs += performance.now() - t
        }
      })()
    }
    const { sent, seconds } = await sendAll(server.url, storm.deliveries, world, {
      concurrency: o.concurrency,
      retry: crash,
      onAck: (n) => {
        acked = n
      },
    })
    await killer
    const rate = storm.deliveries.length / seconds
    console.log(
      `storm: ${storm.deliveries.length.toLocaleString('en-US')} deliveries in ${seconds.toFixed(1)} s: ${Math.round(rate).toLocaleString('en-US')} deliveries/s` +
        (crash ? ` (with ${kills.length} kills, ${(restartMs / 1000).toFixed(1)} s restarting)` : ''),
    )
    const answers = sent.flatMap((s) => s.answers)
    const last = (s: Sent) => s.answers.at(-1)!
    console.log(
      `answers: ${JSON.stringify(countBy(answers, (a) => String(a.status)))}; acknowledged outcomes: ${JSON.stringify(countBy(sent, (s) => last(s).outcome ?? String(last(s).status)))}`,
    )

    const liveViewsSample = userIds.slice(0, Math.min(100, userIds.length))
    const live = await withDb(liveStore, async (storage) => {
      const rows = await drainOutbox(storage, world.smtp, 60_000)
      return { rows, views: await apiViews(server.url, liveViewsSample) }
    })
    await stop(server)
    const integrity = o.engine === 'sqlite' ? integrityCheck(liveStore) : null
    const liveState = await withDb(liveStore, snapshot)

    // --- the serial replay -------------------------------------------------------------------------
    const replaySmtp = await startSmtp()
    stack.add(() => replaySmtp.close())
    const replayStore = await freshStore(stack, o.engine)
    await seedUsers(replayStore, userIds)
    const replayServer = await start(stack, serverEnv(replayStore, world, replaySmtp), o.binary)
    const t1 = performance.now()
    const ordered = inTimeOrder(storm.events)
    const replayFailures = await replaySerially(replayServer.url, ordered, world)
    console.log(
      `replay: ${ordered.length.toLocaleString('en-US')} events one at a time in time order in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    )
    const replay = await withDb(replayStore, async (storage) => {
      const rows = await drainOutbox(storage, replaySmtp, 60_000)
      return { rows, views: await apiViews(replayServer.url, liveViewsSample) }
    })
    await stop(replayServer)
    const replayState = await withDb(replayStore, snapshot)

    // --- checks ---------------------------------------------------------------------------------
    console.log('\nchecks')
    checks.check('the serial replay: every event answered 200', replayFailures.length === 0, replayFailures.slice(0, 3).join('; '))
    if (crash) {
      const refused = answers.filter((a) => a.status >= 400 && a.status < 500)
      checks.check(
        'no delivery refused (4xx)',
        refused.length === 0,
        refused.length ? `${refused.length}: ${refused[0]!.status} ${refused[0]!.error}` : '',
      )
      const served5xx = answers.filter((a) => a.status >= 500)
      checks.check(
        'unacknowledged deliveries were connection failures, not 5xx answers',
        served5xx.length === 0,
        `${answers.filter((a) => a.status === 0).length} connection failures retried${served5xx.length ? `; ${served5xx.length} 5xx: ${served5xx[0]!.status} ${served5xx[0]!.error}` : ''}`,
      )
      checks.check(`${o.kills} SIGKILLs while the deliveries ran`, kills.length === o.kills, `${kills.length}`)
    } else {
      const bad = answers.filter((a) => a.status !== 200)
      checks.check(
        'every delivery answered 200',
        bad.length === 0,
        bad.length ? `${bad.length}: ${JSON.stringify(countBy(bad, (a) => String(a.status)))}, e.g. ${bad[0]!.error}` : '',
      )
    }
    // No event applied twice: one delivery of each event did its work, every other one found it done.
    const firsts = countBy(
      sent.filter((s) => s.answers.some((a) => a.status === 200 && firstOutcome(a.outcome))),
      (s) => `${s.delivery.event.provider} ${s.delivery.event.id}`,
    )
    const twice = Object.entries(firsts).filter(([, n]) => n > 1)
    const never = crash ? [] : storm.events.filter((e) => !firsts[`${e.provider} ${e.id}`])
    checks.check(
      'no event applied twice: every repeat answered "duplicate"',
      twice.length === 0 && never.length === 0,
      twice.length
        ? `${twice.length} applied more than once, e.g. ${twice[0]![0]}`
        : never.length
          ? `${never.length} never applied, e.g. ${never[0]!.id}`
          : '',
    )
    const events = liveState.webhook_events!
    checks.check('each distinct event recorded once', events.size === storm.events.length, `${events.size} of ${storm.events.length}`)
    if (crash) {
      const ackedIds = new Set(
        sent.filter((s) => s.answers.some((a) => a.status === 200)).map((s) => `${s.delivery.event.provider} ${s.delivery.event.id}`),
      )
      const missing = [...ackedIds].filter((k) => !events.has(k))
      checks.check(
        'every 2xx-acknowledged delivery present after the kills',
        missing.length === 0,
        missing.length ? `${missing.length} missing, e.g. ${missing[0]}` : `${ackedIds.size}`,
      )
    }
    const diffs = compareSnapshots(liveState, replayState)
    const sizes = Object.entries(replayState)
      .map(([t, rows]) => `${rows.size} ${t}`)
      .join(', ')
    checks.check(
      'final state (tiers, subscriptions, payments, customers, events, outbox) equals the serial replay',
      diffs.length === 0,
      diffs.length ? `\n${diffs.join('\n')}` : sizes,
    )
    const viewDiffs = compareViews(live.views, replay.views)
    checks.check(`the API's view of ${liveViewsSample.length} users equals the replay's`, viewDiffs.length === 0, viewDiffs.join('\n'))
    const tiers = countBy([...replayState.users!.values()], (u) => String(u.tier))
    console.log(`       (the replay's tiers: ${JSON.stringify(tiers)})`)
    const liveMail = checkMail(live.rows, world.smtp, kills)
    checks.check(
      crash ? 'every e-mail delivered at least once and at most once per event' : 'every outbox e-mail sent exactly once to the SMTP server',
      liveMail.errors.length === 0,
      liveMail.errors.length
        ? liveMail.errors.slice(0, 5).join('; ')
        : `${live.rows.length} messages${liveMail.resent ? ` (${liveMail.resent} sent again: a kill landed between the mail server's answer and the outbox's record, at most ${liveMail.windowMs} ms after it; same Message-ID)` : ''}`,
    )
    const replayMail = checkMail(replay.rows, replaySmtp)
    checks.check('the replay sent its e-mails exactly once', replayMail.errors.length === 0, replayMail.errors.slice(0, 3).join('; '))
    if (integrity !== null) checks.check('PRAGMA integrity_check', integrity === 'ok', integrity)
    const failed = checks.failed.length
    console.log(
      `\n${name}: ${checks.count - failed}/${checks.count} checks passed; ${Math.round(rate).toLocaleString('en-US')} deliveries/s; wall time ${((performance.now() - wall) / 1000).toFixed(1)} s`,
    )
    if (failed) console.log(`FAILED: ${checks.failed.map((c) => c.name).join('; ')}`)
    await stack.stopAll()
    await dropDatabases()
    process.exit(failed ? 1 : 0)
  } catch (error) {
    console.error(`\nFAILED: ${error instanceof Error ? (error.stack ?? error.message) : error}`)
    await stack.stopAll()
    await dropDatabases().catch(() => {})
    process.exit(1)
  }
}
