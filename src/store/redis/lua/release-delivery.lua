local lease = P .. 'lease:' .. ARGV[2] .. ':' .. ARGV[3]
if redis.call('GET', lease) == ARGV[4] then redis.call('DEL', lease) end
return 0
