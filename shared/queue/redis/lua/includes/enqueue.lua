-- What an enqueue does, as statements (not a function): ARGV 7 id, 8 delayMs, 9 signature ('' when unsigned).
-- Needs schedule (include it first). Shared by add.lua and the forwarder's fenced add, which runs it behind the
-- lease compare.
if ARGV[9] ~= '' then redis.call('HSET', P .. 'sig', ARGV[7], ARGV[9]) end
schedule(ARGV[7], NOW + math.max(0, math.floor(tonumber(ARGV[8]))))
