-- The quarantine's values (cluster-quarantine.ts), parsed; nil when garbage: syncingMark(v) → {token, bytes,
-- report} of a `fwd:syncing` mark, deathRecord(v) → {deaths, sinceMs, untilMs, bytes, report} of a `fwd:deaths`
-- record, markToken(v) → a mark's token. num(s): a number of at most 15 digits (a safe integer; longer is
-- garbage). Values are written with %d, never 1e+15.
local function num(s) if s and #s <= 15 then return tonumber(s) end return nil end
local function syncingMark(v)
  if not v then return nil end
  local t, b, r = string.match(v, '^(%d+)|(%d+)|(.*)$')
  if not (num(t) and num(b)) then return nil end
  return { num(t), num(b), r }
end
local function deathRecord(v)
  if not v then return nil end
  local d, s, u, b, r = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
  if not (num(d) and num(s) and num(u) and num(b)) then return nil end
  return { num(d), num(s), num(u), num(b), r }
end
local function markToken(v) return v and string.match(v, '^(%d+)|') end
