@cap:graphql
Feature: Requests built to exhaust or confuse the service
  Anyone who can reach the service can send a request built to cost it far more than it
  costs the sender, or to be read two ways. None of this is DataHub's published contract:
  these are recommendations (OWASP API Security Top 10, API4:2023 unrestricted resource
  consumption; the GraphQL over HTTP draft; RFC 9110, section 5.3), so each scenario is a
  should. A document whose size after fragment expansion is out of all proportion to its
  text, or that repeats one response name thousands of times, is refused as a bad request
  within seconds (an unbounded server takes minutes and gigabytes), also when a user with
  no privileges sends it. A string holding U+0000 cannot be stored, so it is refused as a
  bad request and nothing is made. A request with two Authorization headers is refused
  rather than judged by either one. A request naming in its Host header a name the service
  does not answer to (as a page of another site does once that site's name resolves to the
  service: DNS rebinding) is refused, and does nothing; so is one naming a host that only
  begins like a name it answers to (localhost, or the host of its own URL, followed by another
  site's domain), which that site's owner may name as well.

  Background:
    Given Ann holds a personal access token

  @id:hostile-01 @should @core
  Scenario Outline: A document <shape> is refused as a bad request within 10 seconds
    When Ann sends a document <shape>
    Then the document is refused as a bad request within 10 seconds
    And the service still answers Ann

    Examples:
      | shape                                                      |
      | whose fragments spread each other ten times over ten levels |
      | with 3,000 aliases of one field with different arguments    |
      | with 6,000 copies of one field                              |
      | with 1,000 aliases of one field with different arguments    |

  @id:hostile-02 @should @core @cap:tags
  Scenario Outline: A tag whose name holds a NUL character sent <how> is refused, and no tag is made
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag whose name holds a NUL character, sent <how>
    Then the answer is a GraphQL error saying the request is bad
    And the tag does not exist

    Examples:
      | how                    |
      | in a variable          |
      | in the document itself |

  @id:hostile-03 @should @core @cap:authentication
  Scenario Outline: A request to the <tier> with two Authorization headers is refused with status 400
    When Ann asks the <tier> who she is with her token in one Authorization header and the administrator's in a second
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:hostile-04 @must @core @cap:authentication
  Scenario Outline: A request to the <tier> with one Authorization header is answered
    When Ann asks the <tier> who she is with her token in one Authorization header
    Then the answer names Ann as the signed-in user

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:hostile-05 @should @core @cap:tags
  Scenario: A tag creation with two Authorization headers is refused, and no tag is made
    When the administrator creates a tag with a second Authorization header, Ann's
    Then the answer has status 400
    And the tag does not exist

  @id:hostile-06 @should @core @cap:entity-paths
  Scenario: An entity read with two Authorization headers is refused, and shows nothing of the entity
    Given a tag exists
    When the administrator reads the tag's entity with a second Authorization header, Ann's
    Then the answer has status 400
    And the answer shows nothing of the tag

  @id:hostile-07 @should @core @cap:tags
  Scenario Outline: A request to the <tier> naming a host the service does not answer to is refused, and no tag is made
    When the administrator creates a tag through the <tier> in a request that names another host
    Then the request is refused as sent to a host the service does not answer to
    And the tag does not exist

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:hostile-08 @should @core @cap:tags
  Scenario Outline: A request to the <tier> naming <host> followed by another domain is refused, and no tag is made
    When the administrator creates a tag through the <tier> in a request that names <host> followed by another domain
    Then the request is refused as sent to a host the service does not answer to
    And the tag does not exist

    Examples:
      | tier             | host                   |
      | metadata service | localhost              |
      | metadata service | the service's own host |
      | frontend         | localhost              |
      | frontend         | the service's own host |
