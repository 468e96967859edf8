-- NOW: the Redis server's clock in ms (TIME), the only clock the forwarder's scripts use.
local T = redis.call('TIME')
local NOW = tonumber(T[1]) * 1000 + math.floor(tonumber(T[2]) / 1000)
