redis.call('HSETNX', P .. 'settings', ARGV[2], ARGV[3])
return redis.call('HGET', P .. 'settings', ARGV[2])
